"""People: accounts and sign-up, guests (play without an account), casual-match limits, and player names."""
