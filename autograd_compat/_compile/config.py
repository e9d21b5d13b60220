"""torch._dynamo.config: the settings of torch.compile that change anything here."""

cache_size_limit = 8  # programs per compiled function; past this, new kinds of calls run eagerly
disabled = False  # True: every compiled function runs eagerly (torch.compiler.disable's switch)
