"""Live updates across workers: the changes one worker commits, told to the streams of all."""
