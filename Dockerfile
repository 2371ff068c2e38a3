FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml ./
COPY config ./config
COPY games ./games
COPY tournaments ./tournaments
COPY bots_api ./bots_api
COPY examples ./examples
COPY templates ./templates
COPY static ./static
COPY docs ./docs
COPY manage.py Procfile ./
RUN pip install --no-cache-dir .
EXPOSE 8000
ENV DB_CONN_MAX_AGE=0
CMD ["gunicorn", "config.asgi", "--worker-class", "uvicorn_worker.UvicornWorker", "--bind", "0.0.0.0:8000", "--workers", "2", "--graceful-timeout", "10", "--forwarded-allow-ips", ""]
