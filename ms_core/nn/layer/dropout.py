"""Placeholder: filled in by the nn work (issue 3)."""
__all__ = []
