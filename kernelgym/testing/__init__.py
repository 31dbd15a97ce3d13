"""Test helpers shipped with the package: candidate programs and exploit catalogue."""
