"""memevo.desktop: the tray app and its panel. All Qt imports go through memevo.desktop.qt."""
