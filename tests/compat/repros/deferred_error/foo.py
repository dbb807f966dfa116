import bar
