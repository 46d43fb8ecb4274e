"""Document collections in the window: the Qt adapter over core.document_service, and its dialog."""
