//! The methods that the bridge sends to its client: one type from the
//! place a question or a notification is made to the line that goes out.
//! What the upstream server sends is parsed into them at one place each
//! (`input::checks`, `listener::events`).

/// A request of the bridge to the client: the questions of an input
/// request (behaviour spec, "The questions"), and a later sign-in's URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientRequest {
    ElicitationCreate,
    SamplingCreateMessage,
    RootsList,
}

impl ClientRequest {
    const ALL: [ClientRequest; 3] =
        [ClientRequest::ElicitationCreate, ClientRequest::SamplingCreateMessage, ClientRequest::RootsList];

    /// The request of a method name; `None` for a name that is not one.
    pub(crate) fn parse(name: &str) -> Option<ClientRequest> {
        ClientRequest::ALL.into_iter().find(|method| method.as_str() == name)
    }

    /// Its method in the protocol.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ClientRequest::ElicitationCreate => "elicitation/create",
            ClientRequest::SamplingCreateMessage => "sampling/createMessage",
            ClientRequest::RootsList => "roots/list",
        }
    }
}

/// A notification of the bridge to the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientNotification {
    Progress,
    Message,
    Cancelled,
    ElicitationComplete,
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    ResourcesUpdated,
}

impl ClientNotification {
    /// Its method in the protocol.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ClientNotification::Progress => "notifications/progress",
            ClientNotification::Message => "notifications/message",
            ClientNotification::Cancelled => "notifications/cancelled",
            ClientNotification::ElicitationComplete => "notifications/elicitation/complete",
            ClientNotification::ToolsListChanged => "notifications/tools/list_changed",
            ClientNotification::PromptsListChanged => "notifications/prompts/list_changed",
            ClientNotification::ResourcesListChanged => "notifications/resources/list_changed",
            ClientNotification::ResourcesUpdated => "notifications/resources/updated",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ClientRequest;

    #[test]
    fn a_request_parses_from_its_method_only() {
        for method in ClientRequest::ALL {
            assert_eq!(ClientRequest::parse(method.as_str()), Some(method));
        }
        assert_eq!(ClientRequest::parse("tools/list"), None);
        assert_eq!(ClientRequest::parse("Roots/list"), None);
    }
}
