"""Engine errors."""


class IllegalAction(ValueError):
    """An action the rules do not allow now, or one that is malformed.

    The message says why in a player's words (which suit or rank is needed, whose turn it is) and
    the deal is left exactly as it was.
    """
