"""What the fake vendor plugins were asked to do, in order."""
EVENTS = []
