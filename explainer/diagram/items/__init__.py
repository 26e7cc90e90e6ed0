"""One module per concept of the illustration; each item updates in place from a frame."""
