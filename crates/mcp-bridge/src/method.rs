//! What a forwarded method is (behaviour spec, "Forwarded requests (M1)",
//! "Result rules (M1)", "Icons of a remote upstream server (M4)"): the one
//! place that knows, for each of the eight methods that both revisions
//! have, its class of time limit, whether it is a list and where its items
//! are, whether the icon rule of a remote server filters its result, and
//! whether its result may go to the client as the raw text that came.
//! The front end parses the method once, at dispatch.

/// One of the eight forwarded methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    ToolsList,
    ToolsCall,
    PromptsList,
    PromptsGet,
    ResourcesList,
    ResourcesTemplatesList,
    ResourcesRead,
    CompletionComplete,
}

/// The class of a request's time limit ("Request / Time limit").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LimitClass {
    /// The lists and `completion/complete`: 120 s.
    List,
    /// The first round of `prompts/get` and `resources/read`: 120 s.
    FirstRound,
    /// A later round of `prompts/get` and `resources/read`: 1 h.
    LaterRound,
    /// Each round of `tools/call`: 1 h.
    Call,
}

impl Method {
    pub(crate) const ALL: [Method; 8] = [
        Method::ToolsList,
        Method::ToolsCall,
        Method::PromptsList,
        Method::PromptsGet,
        Method::ResourcesList,
        Method::ResourcesTemplatesList,
        Method::ResourcesRead,
        Method::CompletionComplete,
    ];

    /// The forwarded method of this name; `None` for any other method.
    pub(crate) fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Method::ToolsList => "tools/list",
            Method::ToolsCall => "tools/call",
            Method::PromptsList => "prompts/list",
            Method::PromptsGet => "prompts/get",
            Method::ResourcesList => "resources/list",
            Method::ResourcesTemplatesList => "resources/templates/list",
            Method::ResourcesRead => "resources/read",
            Method::CompletionComplete => "completion/complete",
        }
    }

    /// The member of a list result that holds its items; `None` for a
    /// method that is not a list.
    pub(crate) fn list_items(self) -> Option<&'static str> {
        match self {
            Method::ToolsList => Some("tools"),
            Method::PromptsList => Some("prompts"),
            Method::ResourcesList => Some("resources"),
            Method::ResourcesTemplatesList => Some("resourceTemplates"),
            _ => None,
        }
    }

    /// Whether it is one of the four lists (the `nextCursor` rule).
    pub(crate) fn is_list(self) -> bool {
        self.list_items().is_some()
    }

    /// The class of the time limit of `round` (1 for the first request).
    pub(crate) fn limit_class(self, round: usize) -> LimitClass {
        match self {
            Method::ToolsCall => LimitClass::Call,
            Method::PromptsGet | Method::ResourcesRead if round > 1 => LimitClass::LaterRound,
            Method::PromptsGet | Method::ResourcesRead => LimitClass::FirstRound,
            _ => LimitClass::List,
        }
    }

    /// Whether the icon rule of a remote server can change its result: the
    /// items of the lists, the resource links of a `tools/call` result's
    /// content and of a `prompts/get` result's messages.
    pub(crate) fn icons_filtered(self) -> bool {
        self.is_list() || matches!(self, Method::ToolsCall | Method::PromptsGet)
    }

    /// Whether its result may go to the client as the raw text that came
    /// (`raw`), for an upstream that is `remote` or not: everything but
    /// what the icon rule of a remote server filters, except `tools/call`,
    /// whose raw path steps aside by itself for a result with a resource
    /// link.
    pub(crate) fn may_stay_raw(self, remote: bool) -> bool {
        !(remote && self.icons_filtered()) || self == Method::ToolsCall
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_method_reads_back_from_its_name_and_no_other_is_forwarded() {
        for method in Method::ALL {
            assert_eq!(Method::parse(method.name()), Some(method));
        }
        for other in ["initialize", "ping", "resources/subscribe", "server/discover", "tools/List", ""] {
            assert_eq!(Method::parse(other), None, "{other}");
        }
    }

    /// The HTTP transport learns the `x-mcp-header` annotations of each
    /// tool from the parsed result of `tools/list` (`Client::call`): so no
    /// result of a remote server's `tools/list` may stay raw.
    #[test]
    fn no_raw_result_is_a_remote_tools_list() {
        let raw_remote: Vec<Method> = Method::ALL.into_iter().filter(|m| m.may_stay_raw(true)).collect();
        assert!(!raw_remote.contains(&Method::ToolsList), "{raw_remote:?}");
        assert_eq!(raw_remote, [Method::ToolsCall, Method::ResourcesRead, Method::CompletionComplete]);
        assert!(Method::ALL.into_iter().all(|m| m.may_stay_raw(false)), "a pipe's results may all stay raw");
    }

    /// The table "Request / Time limit", by class.
    #[test]
    fn each_round_has_the_class_of_the_table() {
        use LimitClass::*;
        for (method, round, class) in [
            (Method::ToolsList, 1, List),
            (Method::CompletionComplete, 1, List),
            (Method::PromptsGet, 1, FirstRound),
            (Method::ResourcesRead, 1, FirstRound),
            (Method::PromptsGet, 2, LaterRound),
            (Method::ResourcesRead, 10, LaterRound),
            (Method::ToolsCall, 1, Call),
            (Method::ToolsCall, 2, Call),
        ] {
            assert_eq!(method.limit_class(round), class, "{method:?}, round {round}");
        }
    }
}
