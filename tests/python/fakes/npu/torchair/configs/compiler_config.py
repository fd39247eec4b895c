class CompilerConfig:
    pass
