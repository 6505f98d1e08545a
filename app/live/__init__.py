"""The live path, between the web and the service (web → live → service): the broker that
tells each game's readers of its versions in order, who is at the table, and the buses that
carry both across workers. The service imports nothing of it: it hands each committed
version to its listeners (the bus), and is given the presence where it needs it."""
