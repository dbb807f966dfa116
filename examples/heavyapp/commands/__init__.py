"""One module per subcommand; each imports its heavy dependency at the top."""
