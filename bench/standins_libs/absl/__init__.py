"""absl-py stand-in (bench only; see bench/standins_libs/README.md): flags and app.run."""
