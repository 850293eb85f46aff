"""The API tests' SMTP sink (tests/api/test_servers.rs): aiosmtpd's Maildir handler that refuses,
for good, every recipient whose address starts with "refused", as a mail server refuses an address
it does not know."""

from aiosmtpd.handlers import Mailbox


class RefusingMailbox(Mailbox):
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("refused"):
            return "550 5.1.1 No such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"
