"""The package version (a leaf module: importing it pulls nothing else in)."""

__version__ = "0.1.0"
