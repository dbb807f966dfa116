"""``heavyapp mail``: build a message and print it."""
import lazify._importlib_bootstrap as __lazy__; __lazy__ = __lazy__.__lazy_module__(globals())
__lazy__.__lazy_import__(('email.policy', None))
__lazy__.__lazy_import__(('email.utils', None))
__lazy__.__lazy_from__('email.message', ('EmailMessage', None))


def run(args, stdin, stdout) -> int:
    msg = __lazy__.EmailMessage(policy=__lazy__.email.policy.SMTP)
    msg["To"] = args.to
    msg["From"] = "heavyapp@example.invalid"
    msg["Subject"] = args.subject
    msg["Date"] = __lazy__.email.utils.formatdate(0, usegmt=True)
    msg.set_content(args.body)
    stdout.write(msg.as_string().replace("\r\n", "\n"))
    return 0
