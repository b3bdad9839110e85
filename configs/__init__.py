"""The shipped training configs, installed with the package as ``training.configs`` (pyproject.toml maps
this folder there, so the repository's configs/ is the one copy).  ``durak train --config NAME`` reads
them by name, ``durak train --list-configs`` lists them, ``durak init-config NAME -o FILE`` copies one."""
