"""The API's limit/offset pages, bounded."""

from __future__ import annotations

from rest_framework.pagination import LimitOffsetPagination


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """DRF's ``limit``/``offset`` pages with ``limit`` capped at ``max_limit`` (100 rows; a larger or overflowing
    number gives 100, a malformed or negative one the default ``PAGE_SIZE``). An ``offset`` past the last row gives
    an empty page."""

    max_limit = 100
