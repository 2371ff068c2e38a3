"""The site kit: plumbing every app of the service uses and none owns. Client addresses and limits (``limits``),
ids from URLs and forms (``ids``), bounded pages of lists (``pagination``), page helpers (``pages``), where tasks run
(``dispatch``) and the API's one error (``errors``). It imports no app of the service (``lint-imports`` keeps it so),
so any app may build on it."""
