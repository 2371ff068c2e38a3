"""The compiled fast path (src/eights_engine/_fastplay.c, see eights_engine.fast): built where a C compiler is found
(Debian's gcc), left out where it is not, and then the pure Python path stands in (``optional=True``). Everything
else about the package is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("eights_engine._fastplay", ["src/eights_engine/_fastplay.c"], optional=True,
                             extra_compile_args=["-O2", "-std=c11"])])
