"""Pure analysis beside the rules and the strategy: game reviews and advice, no I/O."""
