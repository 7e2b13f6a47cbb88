//! The gates of what comes from outside (a server, an authorization server,
//! a child process, a client) before the bridge shows it to anyone: `url`
//! for a URL that is opened in a browser, written in a sign-in line or sent
//! to the client, `text` for a text that reaches a log line, a message or
//! `data.detail`. Pure; every other module that shows outside data goes
//! through them.

pub(crate) mod text;
pub(crate) mod url;
