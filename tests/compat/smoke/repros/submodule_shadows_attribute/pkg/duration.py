class Duration:
    def __init__(self, days):
        self.days = days

    def __repr__(self):
        return f"Duration(days={self.days})"
