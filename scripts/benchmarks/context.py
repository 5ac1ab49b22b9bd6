"""What every table's hooks receive."""


class Context:
    """The parsed options (`args`), the binary under test, the work folder, the inputs the tables' `prepare`
    made ({(minutes, format): path}), and, once every table is measured, the load averages before and after
    (`loads`) and the seconds the whole run took (`elapsed`)."""

    def __init__(self, args, binary, work):
        self.args = args
        self.binary = binary
        self.work = work
        self.inputs = {}
        self.loads = None
        self.elapsed = None
