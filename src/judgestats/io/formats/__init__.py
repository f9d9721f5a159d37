"""Built-in importers; importing this package registers them."""

from judgestats.io.formats import table

__all__ = ["table"]
