EVENTS = set()
