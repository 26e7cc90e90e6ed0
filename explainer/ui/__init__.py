"""Qt widgets: the main window, its controls, presenter mode, and the controller that owns the
worker thread running the engine. Nothing here calls the engine on the GUI thread."""
