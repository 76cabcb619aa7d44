//! The message as it leaves for the model: `@SERVER:URI` mentions of a typed message replaced
//! by the resources they name (`coyote_session::Session::expand_mentions`: labelled with the
//! URI, through the content policy; an unreadable mention is shown and nothing is sent), the
//! note of what `.watch`ed resources did since the last message (`watch_cmd.rs`) before it,
//! then the `.file` attachments.
//!
//! Only a message the person typed (or a step of their macro) is searched for mentions: a
//! `.prompt` result is the server's text and goes as it is.

use super::Repl;
use super::line::{MessageOrigin, UserMessage};
use crate::scope;

impl Repl {
    /// The user message with its mentions expanded and the `.file` attachments (taken: they
    /// go with this message only); `None` when a mention cannot be read or the model cannot
    /// take an attached image (the reason is shown; the attachments stay for the next try
    /// after an unreadable mention).
    pub(super) fn outgoing(&mut self, message: UserMessage) -> Option<coyote_protocol::Message> {
        let typed = *message.origin() == MessageOrigin::Typed;
        let mut text = message.into_text();
        if typed {
            text = self.expand_mentions(&text)?;
        }
        let attachments = std::mem::take(&mut self.attachments);
        if !attachments.images.is_empty()
            && let Some(app) = self.app_config.as_ref()
        {
            let choice = scope::choose_model(app, &self.scope);
            let (model, supported) = match &choice {
                Ok(choice) => (choice.id.as_str(), choice.supports_images),
                Err(_) => ("in use", false),
            };
            if let Err(error) = attachments.check_model(model, supported) {
                self.screen.line(&format!("coyote: {}", error.message));
                return None;
            }
        }
        // What `.watch`ed resources did since the last message opens this one.
        if let Some(note) = self.watches.take_note(&*self.enabled_filter()) {
            text = format!("{note}\n\n{text}");
        }
        let text = attachments.compose(&text);
        Some(coyote_protocol::Message::user_with_images(
            text,
            attachments.images,
        ))
    }

    /// `text` with its mentions read; `None` (the error shown) when one cannot be read or
    /// Ctrl-C stopped the reading.
    fn expand_mentions(&self, text: &str) -> Option<String> {
        let session = &self.session;
        let expanded = self.runtime_handle.block_on(async {
            let mut interrupts = super::interrupt_signals();
            tokio::select! {
                expanded = session.expand_mentions(text) => Some(expanded),
                () = super::next_interrupt(&mut interrupts) => None,
            }
        });
        match expanded {
            Some(Ok(text)) => Some(text),
            Some(Err(error)) => {
                self.screen.line(&format!(
                    "coyote: {}",
                    self.redactor.redact(&error.to_string())
                ));
                None
            }
            None => {
                self.screen
                    .line("coyote: stopped reading the mentioned resources; nothing was sent");
                None
            }
        }
    }
}
