"""`explainer bench`: measured figures for the engine, figure export and the app.

Kept apart from what they measure so that engine/, export/ and ui/ hold no code that only a
benchmark runs, and so that the figures the README quotes come from one place.
"""
