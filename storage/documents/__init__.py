"""Documents for question answering: parsing (isolated), chunking, the encrypted store, search."""
