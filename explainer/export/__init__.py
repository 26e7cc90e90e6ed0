"""Headless export of one frame of the illustration to SVG or PNG (app and `explainer export`)."""
