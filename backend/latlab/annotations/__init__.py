"""Annotations: moments marked on a project's trends, by a person, a CI step or the lab."""
