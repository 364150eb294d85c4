//! The search against loopback stand-ins of NCBI Datasets, E-utilities,
//! Ensembl REST and Ensembl's release files. The fixtures follow each
//! provider's documented shapes; their values are illustrative.

mod recipes;
mod standin;

use serde_json::json;
use somite_data::model::{
    AccessionKind, DataProvider, Facts, Layout, ProviderChoice, ResultKind, SearchKind,
};
use somite_data::{ApiKey, Clock, DataConfig, DataSearch, SearchRequest, SearchResponse};
use standin::{Mode, StandIn};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

fn request(query: &str, kind: Option<SearchKind>) -> SearchRequest {
    SearchRequest {
        query: query.into(),
        kind,
        ..SearchRequest::default()
    }
}

struct Harness {
    standin: StandIn,
    search: DataSearch,
    now: Arc<Mutex<SystemTime>>,
    _cache: tempfile::TempDir,
}

impl Harness {
    /// The answer to a search for `query`, with the kind inferred.
    async fn answer(&self, query: &str) -> SearchResponse {
        self.search.search(&request(query, None)).await.unwrap()
    }

    /// The error envelope of a search for `query` that must fail.
    async fn refusal(&self, query: &str) -> somite_api::Error {
        let error = self.search.search(&request(query, None)).await.unwrap_err();
        error.to_envelope()
    }
}

async fn harness(tune: impl FnOnce(&mut DataConfig)) -> Harness {
    let standin = StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let now = Arc::new(Mutex::new(SystemTime::now()));
    let mut config = DataConfig::new(cache.path().join("data"));
    config.ncbi_datasets_url = format!("{}/datasets/v2", standin.base);
    config.ncbi_eutils_url = format!("{}/entrez/eutils", standin.base);
    config.ensembl_rest_url = format!("{}/rest", standin.base);
    config.ensembl_ftp_url = format!("{}/pub", standin.base);
    config.request_timeout = Duration::from_secs(5);
    let clock_now = now.clone();
    config.clock = Clock::from_fn(move || *clock_now.lock().unwrap());
    tune(&mut config);
    Harness {
        search: DataSearch::new(config).unwrap(),
        standin,
        now,
        _cache: cache,
    }
}

#[tokio::test]
async fn an_sra_run_resolves_exactly_with_a_paired_recipe() {
    let h = harness(|c| c.ncbi_api_key = ApiKey::new("secret-ncbi-key")).await;
    let answer = h.answer("SRR1553607").await;
    assert_eq!(
        answer.interpretation.accession_kind,
        Some(AccessionKind::SraRun)
    );
    assert_eq!(answer.results.len(), 1);
    let result = &answer.results[0];
    assert_eq!(result.kind, ResultKind::Reads);
    let Facts::Reads(facts) = &result.facts else {
        panic!("{:?}", result.facts)
    };
    assert_eq!(facts.layout, Some(Layout::Paired));
    assert_eq!(facts.platform.as_deref(), Some("ILLUMINA"));
    assert_eq!(facts.spots, Some(203_445));
    assert_eq!(facts.biosample.as_deref(), Some("SAMN02951757"));
    let recipe = result.recipe.as_ref().unwrap();
    assert_eq!(recipe.produces.len(), 2);
    assert_eq!(result.provenance.provider, DataProvider::NcbiEutils);
    // The key reached NCBI, and nowhere else.
    assert!(h.standin.saw_api_key("secret-ncbi-key"));
    let text = serde_json::to_string(&answer).unwrap();
    assert!(!text.contains("secret-ncbi-key"), "{text}");
    assert!(result.provenance.endpoint.contains("/esummary.fcgi?db=sra"));
}

#[tokio::test]
async fn a_study_and_a_biosample_resolve_exactly_to_their_runs() {
    let h = harness(|_| {}).await;
    for (query, kind) in [
        ("SRP045416", AccessionKind::SraStudy),
        ("SAMN02951757", AccessionKind::Biosample),
    ] {
        let answer = h.answer(query).await;
        assert!(answer.interpretation.exact, "{query}");
        assert_eq!(answer.interpretation.accession_kind, Some(kind), "{query}");
        // The accession itself is the E-utilities term, not a free-text guess.
        assert!(h.standin.saw_term(query), "{query}");
        assert_eq!(answer.results[0].id, "SRR1553607", "{query}");
        assert_eq!(answer.results[0].kind, ResultKind::Reads, "{query}");
    }
}

#[tokio::test]
async fn a_bioproject_pages_through_its_runs() {
    let h = harness(|_| {}).await;
    let mut first = request("PRJNA257197", None);
    first.limit = Some(1);
    let page1 = h.search.search(&first).await.unwrap();
    assert_eq!(page1.results[0].id, "SRR1553607");
    let cursor = page1.next_cursor.clone().expect("a second page");
    let page2 = h
        .search
        .search(&SearchRequest {
            cursor: Some(cursor.clone()),
            ..first.clone()
        })
        .await
        .unwrap();
    assert_eq!(page2.results[0].id, "SRR1553608");
    let Facts::Reads(facts) = &page2.results[0].facts else {
        panic!()
    };
    assert_eq!(facts.layout, Some(Layout::Single));
    assert_eq!(page2.next_cursor, None);
    // A cursor is bound to its query.
    let other = h
        .search
        .search(&SearchRequest {
            cursor: Some(cursor),
            ..request("SRP045416", None)
        })
        .await
        .unwrap_err();
    assert_eq!(other.to_envelope().code.as_str(), "invalid_query");
}

#[tokio::test]
async fn a_refseq_assembly_resolves_with_its_facts_and_recipe() {
    let h = harness(|_| {}).await;
    let answer = h
        .search
        .search(&request("GCF_000001405.40", Some(SearchKind::Accession)))
        .await
        .unwrap();
    let result = &answer.results[0];
    let Facts::Assembly(facts) = &result.facts else {
        panic!()
    };
    assert_eq!(facts.name.as_deref(), Some("GRCh38.p14"));
    assert_eq!(facts.refseq_category.as_deref(), Some("reference genome"));
    assert_eq!(facts.total_length, Some(3_099_441_038));
    assert_eq!(facts.level.as_deref(), Some("Chromosome"));
    let recipe = result.recipe.as_ref().unwrap();
    let ops = serde_json::to_value(&recipe.operations).unwrap();
    assert_eq!(ops[0]["operator_id"], "ncbi.datasets_genome");
    assert_eq!(ops[0]["params"]["accession"], "GCF_000001405.40");
    assert_eq!(ops[2]["op"], "connect");
    assert_eq!(result.provenance.provider, DataProvider::NcbiDatasets);
    assert!(
        result
            .provenance
            .endpoint
            .ends_with("/datasets/v2/genome/accession/GCF_000001405.40/dataset_report")
    );
}

#[tokio::test]
async fn genes_resolve_by_ensembl_and_ncbi_ids() {
    let h = harness(|_| {}).await;
    let ensembl = h.answer("ENSG00000157764").await;
    let result = &ensembl.results[0];
    let Facts::Gene(facts) = &result.facts else {
        panic!()
    };
    assert_eq!(facts.symbol.as_deref(), Some("BRAF"));
    assert_eq!(
        facts.location.as_ref().unwrap().strand.as_deref(),
        Some("-")
    );
    assert_eq!(result.provenance.release.as_deref(), Some("Ensembl 115"));

    let ncbi = h.answer("GeneID:672").await;
    let Facts::Gene(facts) = &ncbi.results[0].facts else {
        panic!()
    };
    assert_eq!(facts.ensembl_id.as_deref(), Some("ENSG00000012048"));
    assert_eq!(facts.location.as_ref().unwrap().chromosome, "17");
    assert_eq!(facts.assembly.as_deref(), Some("GRCh38.p14"));

    let refused = h
        .search
        .search(&SearchRequest {
            provider: Some(ProviderChoice::Ncbi),
            ..request("ENSG00000157764", None)
        })
        .await
        .unwrap_err();
    assert_eq!(refused.to_envelope().code.as_str(), "invalid_query");
}

#[tokio::test]
async fn a_taxid_resolves_to_the_organism_with_ensembls_names() {
    let h = harness(|_| {}).await;
    let answer = h.answer("txid9606").await;
    let Facts::Organism(facts) = &answer.results[0].facts else {
        panic!()
    };
    assert_eq!(facts.scientific_name.as_deref(), Some("Homo sapiens"));
    assert_eq!(facts.rank.as_deref(), Some("species"));
    assert_eq!(facts.ensembl_species.as_deref(), Some("homo_sapiens"));
    assert_eq!(facts.ensembl_assembly.as_deref(), Some("GRCh38"));
}

#[tokio::test]
async fn free_text_assemblies_page_at_ncbi_and_add_ensembls_release_files() {
    let h = harness(|_| {}).await;
    let mut first = request("human", Some(SearchKind::Assembly));
    first.limit = Some(1);
    let page1 = h.search.search(&first).await.unwrap();
    assert!(!page1.interpretation.exact);
    let ids: Vec<_> = page1.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["GCF_000001405.40", "GCA_000001405.29"]);
    let ensembl = &page1.results[1];
    assert_eq!(ensembl.provenance.release.as_deref(), Some("Ensembl 115"));
    let ops = serde_json::to_value(&ensembl.recipe.as_ref().unwrap().operations).unwrap();
    assert_eq!(ops[0]["operator_id"], "ensembl.fasta");
    // The files CHECKSUMS lists, fetched from where the search read them.
    assert_eq!(ops[0]["params"]["region"], "primary_assembly");
    assert_eq!(ops[0]["params"]["file_species"], "Homo_sapiens");
    assert_eq!(
        ops[0]["params"]["base_url"],
        format!("{}/pub", h.standin.base)
    );
    assert_eq!(ops[1]["operator_id"], "ensembl.gtf");
    assert_eq!(ops[1]["params"]["release"], 115);

    let page2 = h
        .search
        .search(&SearchRequest {
            cursor: page1.next_cursor.clone(),
            ..first
        })
        .await
        .unwrap();
    let ids: Vec<_> = page2.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["GCA_009914755.4"]);
    assert_eq!(page2.next_cursor, None);
}

#[tokio::test]
async fn free_text_reads_and_gene_symbols_search() {
    let h = harness(|_| {}).await;
    let reads = h
        .search
        .search(&SearchRequest {
            organism: Some("Zaire ebolavirus".into()),
            ..request("ebola", Some(SearchKind::Reads))
        })
        .await
        .unwrap();
    assert_eq!(reads.results[0].id, "SRR1553607");
    assert!(
        h.standin
            .saw_term("(ebola) AND \"Zaire ebolavirus\"[Organism]")
    );

    let no_organism = h
        .search
        .search(&request("BRAF", Some(SearchKind::Gene)))
        .await
        .unwrap_err();
    assert_eq!(
        no_organism.to_envelope().details.unwrap()["field"],
        json!("organism")
    );
    let genes = h
        .search
        .search(&SearchRequest {
            organism: Some("human".into()),
            provider: Some(ProviderChoice::Ensembl),
            ..request("BRAF", Some(SearchKind::Gene))
        })
        .await
        .unwrap();
    assert_eq!(genes.results[0].id, "ENSG00000157764");
}

#[tokio::test]
async fn a_spent_rate_limit_is_reported_with_its_retry_time_and_honoured() {
    let h = harness(|_| {}).await;
    h.standin.set_mode(Mode::RateLimited { retry_after: 30 });
    let envelope = h.refusal("GCF_000001405.40").await;
    assert_eq!(envelope.code.as_str(), "rate_limited");
    let details = envelope.details.unwrap();
    assert_eq!(details["retry_after_seconds"], 30);
    assert_eq!(details["provider"], "ncbi_datasets");
    assert!(details["retry_at"].as_str().unwrap().ends_with('Z'));
    // Within the window Somite does not ask NCBI again.
    let hits = h.standin.hits();
    let again = h.refusal("GCF_000001405.40").await;
    assert_eq!(again.code.as_str(), "rate_limited");
    assert_eq!(h.standin.hits(), hits);
}

#[tokio::test]
async fn a_short_retry_after_is_waited_out_once() {
    let h = harness(|_| {}).await;
    h.standin.set_mode(Mode::RateLimitedOnce { retry_after: 1 });
    let answer = h.answer("GCF_000001405.40").await;
    assert_eq!(answer.results.len(), 1);
    assert_eq!(h.standin.hits(), 2);
}

#[tokio::test]
async fn a_provider_down_is_source_unavailable() {
    let h = harness(|_| {}).await;
    h.standin.set_mode(Mode::Down);
    let envelope = h.refusal("ENSG00000157764").await;
    assert_eq!(envelope.code.as_str(), "source_unavailable");
    assert_eq!(envelope.details.unwrap()["provider"], "ensembl_rest");
}

#[tokio::test]
async fn malformed_json_is_provider_response_invalid_naming_the_provider() {
    let h = harness(|_| {}).await;
    h.standin.set_mode(Mode::Malformed);
    let envelope = h.refusal("GeneID:672").await;
    assert_eq!(envelope.code.as_str(), "provider_response_invalid");
    assert_eq!(
        envelope.details.as_ref().unwrap()["provider"],
        "ncbi_datasets"
    );
    assert!(
        envelope.message.contains("ncbi_datasets"),
        "{}",
        envelope.message
    );
}

#[tokio::test]
async fn a_malformed_answer_is_not_cached_and_the_recovered_provider_is_asked_at_once() {
    let h = harness(|_| {}).await;
    h.standin.set_mode(Mode::Malformed);
    let envelope = h.refusal("GeneID:672").await;
    assert_eq!(envelope.code.as_str(), "provider_response_invalid");
    h.standin.set_mode(Mode::Normal);
    let hits = h.standin.hits();
    let recovered = h.answer("GeneID:672").await;
    assert!(
        h.standin.hits() > hits,
        "asked again, not answered from a cached bad 200"
    );
    assert!(!recovered.results[0].provenance.from_cache);
    // What parsed is cached as before.
    let hits = h.standin.hits();
    assert!(
        h.answer("GeneID:672").await.results[0]
            .provenance
            .from_cache
    );
    assert_eq!(h.standin.hits(), hits);
}

#[tokio::test]
async fn an_oversized_answer_is_refused() {
    let h = harness(|c| c.max_answer_bytes = 64 * 1024).await;
    h.standin.set_mode(Mode::Oversized);
    let envelope = h.refusal("GCF_000001405.40").await;
    assert_eq!(envelope.code.as_str(), "source_unavailable");
    assert!(
        envelope.message.contains("larger than"),
        "{}",
        envelope.message
    );
}

#[tokio::test]
async fn the_cache_answers_for_a_day_and_serves_offline_with_its_age() {
    let h = harness(|_| {}).await;
    let fresh = h.answer("GCF_000001405.40").await;
    assert!(!fresh.results[0].provenance.from_cache);
    let hits = h.standin.hits();

    // Within the day: no request.
    *h.now.lock().unwrap() += Duration::from_secs(3600);
    let cached = h.answer("GCF_000001405.40").await;
    assert_eq!(h.standin.hits(), hits);
    assert!(cached.results[0].provenance.from_cache);
    assert_eq!(cached.results[0].provenance.age_seconds, 3600);

    // Two days later NCBI is down: the old answer, its age shown.
    *h.now.lock().unwrap() += Duration::from_secs(2 * 86_400);
    h.standin.set_mode(Mode::Down);
    let offline = h.answer("GCF_000001405.40").await;
    assert!(h.standin.hits() > hits, "a stale answer is refreshed first");
    let provenance = &offline.results[0].provenance;
    assert!(provenance.from_cache);
    assert_eq!(provenance.age_seconds, 3600 + 2 * 86_400);
    assert_eq!(
        provenance.retrieved_at,
        fresh.results[0].provenance.retrieved_at
    );
}

#[tokio::test]
async fn bad_requests_are_invalid_query_naming_the_field() {
    let h = harness(|_| {}).await;
    let field = |request: SearchRequest| {
        let search = &h.search;
        async move {
            let envelope = search.search(&request).await.unwrap_err().to_envelope();
            assert_eq!(envelope.code.as_str(), "invalid_query");
            envelope.details.unwrap()["field"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    assert_eq!(field(request("   ", None)).await, "query");
    assert_eq!(field(request(&"a".repeat(201), None)).await, "query");
    assert_eq!(field(request("9606", None)).await, "query");
    assert_eq!(
        field(request("human", Some(SearchKind::Accession))).await,
        "query"
    );
    assert_eq!(
        field(request("SRR1553607", Some(SearchKind::Assembly))).await,
        "kind"
    );
    assert_eq!(
        field(SearchRequest {
            limit: Some(0),
            ..request("human", None)
        })
        .await,
        "limit"
    );
    assert_eq!(
        field(SearchRequest {
            cursor: Some("not-a-cursor".into()),
            ..request("human", None)
        })
        .await,
        "cursor"
    );
    assert_eq!(h.standin.hits(), 0, "nothing was asked");
}
