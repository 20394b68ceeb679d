"""A YAML-driven grader for game-tree search exercises."""
