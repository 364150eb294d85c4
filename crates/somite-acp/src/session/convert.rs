//! ACP v1 schema types to Somite's domain types, and back where Somite
//! answers. The only module that knows the schema's shapes.

use agent_client_protocol::v1::schema::{
    AuthMethod, ContentBlock, PermissionOption, PermissionOptionKind, PlanEntry as AcpPlanEntry,
    PlanEntryPriority, PlanEntryStatus, SessionConfigKind, SessionConfigOption,
    SessionConfigOptionCategory, SessionConfigSelectOptions, SessionModeState, StopReason,
    ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind as AcpToolKind,
};

use crate::events::{
    ConfigChoice, ConfigControl, ConfigOption, LoginKind, LoginMethod, Mode, ModeState, PlanEntry,
    PlanPriority, PlanStatus, ToolKind, ToolStatus, TurnOutcome,
};
use crate::permission::{PermissionChoice, PermissionChoiceKind};

/// The visible text of a content block; non-text blocks are named, not shown.
pub(super) fn content_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::ResourceLink(link) => link.uri.clone(),
        ContentBlock::Image(_) => "[image]".to_owned(),
        ContentBlock::Audio(_) => "[audio]".to_owned(),
        ContentBlock::Resource(_) => "[embedded resource]".to_owned(),
        _ => "[content]".to_owned(),
    }
}

pub(super) fn tool_content(content: &ToolCallContent) -> String {
    match content {
        ToolCallContent::Content(content) => content_text(&content.content),
        ToolCallContent::Diff(diff) => format!("[diff of {}]", diff.path.display()),
        ToolCallContent::Terminal(terminal) => format!("[terminal {}]", terminal.terminal_id),
        _ => "[content]".to_owned(),
    }
}

pub(super) fn location(location: &ToolCallLocation) -> String {
    match location.line {
        Some(line) => format!("{}:{line}", location.path.display()),
        None => location.path.display().to_string(),
    }
}

pub(super) fn tool_kind(kind: AcpToolKind) -> ToolKind {
    match kind {
        AcpToolKind::Read => ToolKind::Read,
        AcpToolKind::Edit => ToolKind::Edit,
        AcpToolKind::Delete => ToolKind::Delete,
        AcpToolKind::Move => ToolKind::Move,
        AcpToolKind::Search => ToolKind::Search,
        AcpToolKind::Execute => ToolKind::Execute,
        AcpToolKind::Think => ToolKind::Think,
        AcpToolKind::Fetch => ToolKind::Fetch,
        AcpToolKind::SwitchMode => ToolKind::SwitchMode,
        _ => ToolKind::Other,
    }
}

pub(super) fn tool_status(status: ToolCallStatus) -> ToolStatus {
    match status {
        ToolCallStatus::InProgress => ToolStatus::InProgress,
        ToolCallStatus::Completed => ToolStatus::Completed,
        ToolCallStatus::Failed => ToolStatus::Failed,
        _ => ToolStatus::Pending,
    }
}

pub(super) fn plan_entry(entry: &AcpPlanEntry) -> PlanEntry {
    PlanEntry {
        content: entry.content.clone(),
        priority: match entry.priority {
            PlanEntryPriority::High => PlanPriority::High,
            PlanEntryPriority::Low => PlanPriority::Low,
            _ => PlanPriority::Medium,
        },
        status: match entry.status {
            PlanEntryStatus::InProgress => PlanStatus::InProgress,
            PlanEntryStatus::Completed => PlanStatus::Completed,
            _ => PlanStatus::Pending,
        },
    }
}

/// The options Somite renders: selects and booleans. Unknown kinds never
/// reach here (the schema skips them while parsing).
pub(super) fn config_options(options: &[SessionConfigOption]) -> Vec<ConfigOption> {
    options.iter().filter_map(config_option).collect()
}

fn config_option(option: &SessionConfigOption) -> Option<ConfigOption> {
    let control = match &option.kind {
        SessionConfigKind::Select(select) => ConfigControl::Select {
            current_value: select.current_value.to_string(),
            choices: match &select.options {
                SessionConfigSelectOptions::Ungrouped(options) => options
                    .iter()
                    .map(|choice| ConfigChoice {
                        value: choice.value.to_string(),
                        name: choice.name.clone(),
                        description: choice.description.clone(),
                        group: None,
                    })
                    .collect(),
                SessionConfigSelectOptions::Grouped(groups) => groups
                    .iter()
                    .flat_map(|group| {
                        group.options.iter().map(|choice| ConfigChoice {
                            value: choice.value.to_string(),
                            name: choice.name.clone(),
                            description: choice.description.clone(),
                            group: Some(group.name.clone()),
                        })
                    })
                    .collect(),
                _ => return None,
            },
        },
        SessionConfigKind::Boolean(boolean) => ConfigControl::Boolean {
            current_value: boolean.current_value,
        },
        _ => return None,
    };
    Some(ConfigOption {
        id: option.id.to_string(),
        name: option.name.clone(),
        description: option.description.clone(),
        category: option.category.as_ref().map(|category| {
            match category {
                SessionConfigOptionCategory::Mode => "mode",
                SessionConfigOptionCategory::Model => "model",
                SessionConfigOptionCategory::ModelConfig => "model_config",
                SessionConfigOptionCategory::ThoughtLevel => "thought_level",
                SessionConfigOptionCategory::Other(other) => other.as_str(),
                _ => "other",
            }
            .to_owned()
        }),
        control,
    })
}

pub(super) fn modes(state: &SessionModeState) -> ModeState {
    ModeState {
        current_mode_id: state.current_mode_id.to_string(),
        available: state
            .available_modes
            .iter()
            .map(|mode| Mode {
                id: mode.id.to_string(),
                name: mode.name.clone(),
                description: mode.description.clone(),
            })
            .collect(),
    }
}

pub(super) fn login_method(method: &AuthMethod) -> LoginMethod {
    LoginMethod {
        id: method.id().to_string(),
        name: method.name().to_owned(),
        description: method.description().map(str::to_owned),
        kind: match method {
            AuthMethod::Agent(_) => LoginKind::Agent,
            _ => LoginKind::Terminal,
        },
    }
}

pub(super) fn permission_choice(option: &PermissionOption) -> PermissionChoice {
    PermissionChoice {
        option_id: option.option_id.to_string(),
        name: option.name.clone(),
        kind: match option.kind {
            PermissionOptionKind::AllowOnce => PermissionChoiceKind::AllowOnce,
            PermissionOptionKind::AllowAlways => PermissionChoiceKind::AllowAlways,
            PermissionOptionKind::RejectOnce => PermissionChoiceKind::RejectOnce,
            // An unknown kind is treated as the most restrictive one, so
            // Somite never selects it as an allow.
            _ => PermissionChoiceKind::RejectAlways,
        },
    }
}

pub(super) fn turn_outcome(reason: StopReason) -> TurnOutcome {
    match reason {
        StopReason::EndTurn => TurnOutcome::EndTurn,
        StopReason::MaxTokens => TurnOutcome::MaxTokens,
        StopReason::MaxTurnRequests => TurnOutcome::MaxTurnRequests,
        StopReason::Refusal => TurnOutcome::Refusal,
        StopReason::Cancelled => TurnOutcome::Cancelled,
        _ => TurnOutcome::Failed {
            message: "the agent ended the turn with an unknown stop reason".to_owned(),
        },
    }
}
