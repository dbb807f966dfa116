from pkg.validators import Draft3Validator, Draft7Validator


def __getattr__(name):
    deprecated = {"draft3_format_checker": Draft3Validator,
                  "draft7_format_checker": Draft7Validator}
    if name in deprecated:
        return deprecated[name].FORMAT_CHECKER
    raise AttributeError(f"module {__name__} has no attribute {name}")
