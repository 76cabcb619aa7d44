use super::Surface;
use crate::meta::MetaKind;
use crate::meta::exposure::ExposurePolicies;
use crate::server::McpServerFeatures;

fn tools_only(name: &str) -> McpServerFeatures {
    McpServerFeatures {
        name: name.to_owned(),
        tools: true,
        tasks: true,
        ..McpServerFeatures::default()
    }
}

#[test]
fn a_direct_server_keeps_describe_once_the_model_holds_one_of_its_running_tasks() {
    let surface = Surface::new(ExposurePolicies::default());
    assert!(
        surface.direct_kinds(&tools_only("jobs")).is_empty(),
        "tools alone: nothing to discover"
    );
    surface.note_task_handle("jobs");
    assert_eq!(
        surface.direct_kinds(&tools_only("jobs")),
        vec![MetaKind::Describe]
    );
    assert!(
        surface.direct_kinds(&tools_only("other")).is_empty(),
        "only the server whose task it is"
    );
}
