"""Project tooling (notebook generation, site checks); not part of ibcore."""
