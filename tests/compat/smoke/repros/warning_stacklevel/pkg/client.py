from pkg._impl import Client  # noqa: F401
