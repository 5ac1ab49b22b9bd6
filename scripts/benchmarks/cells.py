"""Cell texts every table shares: a command's measured figure, a ratio of two commands, a verdict."""


def value(commands, name, attribute, digits):
    command = commands.get(name)
    if command is None:
        return "n/a"
    if command.failure is not None:
        return "fail"
    number = getattr(command, attribute)
    return "-" if number is None else f"{number:.{digits}f}"


def ratio(commands, a, b, attribute="wall"):
    x, y = getattr(commands[a], attribute), getattr(commands[b], attribute)
    if x is None or y is None or y == 0:
        return "-"
    return f"{x / y:.2f}×"


def pass_or_miss(ok):
    return "PASS" if ok else "MISS"
