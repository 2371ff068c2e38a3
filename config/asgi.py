"""The ASGI application: the production web server (gunicorn with uvicorn workers, Procfile, docs/LIVE.md) serves
the site and holds the open event streams (``GET /api/matches/<id>/events/``) without a thread each."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()
