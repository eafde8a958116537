"""Placeholder: filled in by the model-zoo coverage work."""
__all__ = []
