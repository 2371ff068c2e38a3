"""Operations: ``/healthz`` and ``/metrics`` (``metrics``), and the project's documents served at ``/docs/``
(``docs_pages``)."""
