"""Every word a learner reads, as data: the records (texts), their loader and its checks (assets,
json_checks, fields), and the glossary's term matcher. Only :mod:`explainer.content.assets`
reads files; everything else gets the texts passed in.
"""
