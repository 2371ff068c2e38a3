"""django-csp's middleware, also on Django's debug pages."""

from __future__ import annotations

from dataclasses import asdict

from csp.constants import HEADER, UNSAFE_INLINE
from csp.middleware import CSPMiddleware as _CSPMiddleware
from csp.utils import build_policy
from django.conf import settings


class CSPMiddleware(_CSPMiddleware):
    """django-csp's ``CSPMiddleware``, except that with ``DEBUG`` on (the zero-setup default) 404 and 500 answers
    get the policy too: django-csp skips them there (hard-coded, no setting) because Django's debug pages style
    themselves inline. Those answers get the site's policy with ``'unsafe-inline'`` added to ``style-src`` only,
    so the debug pages stay readable while no script from the page runs (their few toggles are inline script)."""

    def process_response(self, request, response):
        if (settings.DEBUG and response.status_code in (404, 500) and HEADER not in response
                and not getattr(response, "_csp_exempt", False)):
            parts = self.get_policy_parts(request=request, response=response)
            update = dict(parts.update or {})
            update["style-src"] = [*update.get("style-src", []), UNSAFE_INLINE]
            policy = build_policy(**{**asdict(parts), "update": update})
            excluded = (getattr(settings, "CONTENT_SECURITY_POLICY", None) or {}).get("EXCLUDE_URL_PREFIXES") or ()
            if policy and not request.path_info.startswith(tuple(excluded)):
                response[HEADER] = policy
            return response
        return super().process_response(request, response)
