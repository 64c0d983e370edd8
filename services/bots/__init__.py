"""The bots service (issue 24): plays the seats handed to it, at the level asked, through the
same door as a player; every seat is in the store, so any instance carries any seat on."""
