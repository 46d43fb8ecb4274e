"""The application layer, without Qt: what the window, the terminal commands and the
local API all drive (sessions, chat turns, documents, jobs, the local API)."""
