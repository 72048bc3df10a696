#!/bin/sh
# Regenerates the hostile model files from tiny.heed: each sets one header
# field out of bounds and is signed again, so the checksum is valid and only
# the header lies. Run from the repository root: sh testdata/bad/models/make.sh
set -e
d=testdata/bad/models
r="go run ./testdata/bad/resign"
$r -tiny $d/tiny.heed
m() { name=$1; shift; $r "$@" $d/tiny.heed $d/$name.heed; }
m format            -set 'meta.format="heed-lm"'
m num_mel_0         -set meta.config.num_mel=0
m num_mel_huge      -set meta.config.num_mel=100000
m stack_huge        -set meta.config.stack=1000000
m enc_layers_huge   -set meta.config.enc_layers=100000
m enc_hidden_huge   -set meta.config.enc_hidden=100000
m enc_hidden_neg    -set meta.config.enc_hidden=-8
m embed_dim_huge    -set meta.config.embed_dim=100000
m dec_hidden_huge   -set meta.config.dec_hidden=100000
m att_dim_huge      -set meta.config.att_dim=1000000000
m conv_filters_huge -set meta.config.conv_filters=100000
m conv_width_even   -set meta.config.conv_width=4
m conv_width_huge   -set meta.config.conv_width=2000001
m window_neg        -set meta.config.window_left=-1
m window_huge       -set meta.config.window_right=1000000000
m ctc_weight        -set meta.config.ctc_weight=2
m vocab             -set 'meta.config.vocab=["a","b"]'
m sample_rate_0     -set meta.features.sample_rate=0
m sample_rate_huge  -set meta.features.sample_rate=1099511627776
m sample_rate_8k    -set meta.features.sample_rate=8000
m fft_size_huge     -set meta.features.fft_size=1099511627776
m fft_size_odd      -set meta.features.fft_size=1000
m frame_length_huge -set meta.features.frame_length=1099511627776
m frame_shift_0     -set meta.features.frame_shift=0
m low_freq_neg      -set meta.features.low_freq=-100
m high_freq_huge    -set meta.features.high_freq=1e300
m pre_emph          -set meta.features.pre_emph=2
m features_num_mel  -set meta.features.num_mel=100000
m cmvn_empty        -set 'meta.cmvn.std=[]'
m cmvn_std_zero     -set 'meta.cmvn.std=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]'
m lm_weight_huge    -set meta.lm_weight=1e300
m lm_order_huge     -set 'meta.lm={"alphabet":"x","order":1000000000,"smoothing":"kneser-ney","ngrams":[1],"contexts":[1]}'
m payload_bytes     -set payload_bytes=1125899906842624
m tensor_shape_huge -set 'tensors.0.shape=[100000,100000]'
m tensor_count      -set tensors.0.count=4611686018427387904
m tensor_offset     -set tensors.1.offset=-8
m tensor_dtype      -set 'tensors.0.dtype="f64"'
