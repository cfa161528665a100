"""Command-line front ends. Each subcommand lives in its own module and imports its heavy
dependencies inside ``run`` so that ``dispatchguard check`` never loads libcst or pydantic."""
