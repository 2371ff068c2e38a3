FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# gettext: msgfmt compiles the pages' translations (locale/)
RUN apt-get update && apt-get install -y --no-install-recommends gettext && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml ./
# the rules engine, its own package (engine/README.md): installed first, the service imports it as eights_engine
COPY engine ./engine
COPY config ./config
COPY sitekit ./sitekit
COPY games ./games
COPY tournaments ./tournaments
COPY bots_api ./bots_api
COPY tables ./tables
COPY locale ./locale
COPY examples ./examples
COPY templates ./templates
COPY static ./static
COPY docs ./docs
COPY manage.py Procfile ./
RUN pip install --no-cache-dir "./engine[bots,records]" . && find locale -name "*.po" -exec sh -c 'msgfmt --check -o "${1%.po}.mo" "$1"' _ {} \;
EXPOSE 8000
ENV DB_CONN_MAX_AGE=0
CMD ["gunicorn", "config.asgi", "--worker-class", "uvicorn_worker.UvicornWorker", "--bind", "0.0.0.0:8000", "--workers", "2", "--graceful-timeout", "10", "--keep-alive", "20", "--forwarded-allow-ips", ""]
