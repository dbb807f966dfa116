"""``heavyapp mail``: build a message and print it."""

import email.policy
import email.utils
from email.message import EmailMessage


def run(args, stdin, stdout) -> int:
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["To"] = args.to
    msg["From"] = "heavyapp@example.invalid"
    msg["Subject"] = args.subject
    msg["Date"] = email.utils.formatdate(0, usegmt=True)
    msg.set_content(args.body)
    stdout.write(msg.as_string().replace("\r\n", "\n"))
    return 0
