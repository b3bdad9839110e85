"""Front ends, the top layer: the ``durak`` command (``cli``), terminal play (``terminal``) and the web page
(``web``).  They import the engine, the environments' views, the bots and training; nothing imports them."""
