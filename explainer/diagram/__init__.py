"""Qt graphics for the lifecycle illustration: scene, items, animator, themes, view, render."""
