"""Class mode's Qt side: starting the server, the projected class panel, the class's rounds and
its pick (the Qt-free parts are in explainer/classroom/)."""
