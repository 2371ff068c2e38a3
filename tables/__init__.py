"""Tables: people playing with the people they know. A table is made for a match (rules, seats), each seat open to
anyone with the invite link, saved for an invited person, or taken by a house bot or one of the creator's bots; the
match starts when every seat is filled, or when the creator fills the empty ones with house bots."""
